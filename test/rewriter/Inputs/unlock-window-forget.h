/* A macro of another file that declares a variable of its own, its name pasted from a token of
   another macro's body (Tor's FREE_AND_NULL under workqueue_entry_free): the variable is the
   macro's, not the function's (unlock-window.c). */
#define FORGET(typ, tag, p)                                                                    \
    do {                                                                                       \
        typ *forgotten_##tag = (p);                                                            \
        (p) = NULL;                                                                            \
        (void)forgotten_##tag;                                                                 \
    } while (0)
#define forget_job(p) FORGET(struct job, job_, p)
