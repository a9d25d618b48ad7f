// The program that carries the tests' precompiled header (tests/CMakeLists.txt): it is built
// with the flags every test has, so that they can reuse it. It runs no test.
int main() { return 0; }
