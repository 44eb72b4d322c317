/* Operations that only compute on their argument (no lock call here either). */
static int add_one(int x) { return x + 1; }
static int twice(int x) { return 2 * x; }

int (*ops[2])(int) = {add_one, twice};
