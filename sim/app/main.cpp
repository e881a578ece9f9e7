#include "sim/app/simrun.h"

int main(int argc, char** argv) { return systole::app::simrun_main(argc, argv); }
