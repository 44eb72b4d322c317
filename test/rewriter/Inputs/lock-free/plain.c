/* No mutex call anywhere: rcl-cc compiles it without the rewriter's parse. */
int add(int a, int b) { return a + b; }
