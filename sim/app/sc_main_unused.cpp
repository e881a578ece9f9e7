// libsystemc.so has an undefined reference to sc_main; simrun provides its own main().
extern "C" int sc_main(int, char*[]) { return 0; }
