/* One function, named by its compile (-DNAME=...): each compile records another. */
void NAME(void) {}
