/* No lock here: renames the calling thread through name.c. */
void apply_name(const char *t);

void set_title(const char *t)
{
    apply_name(t);
}
