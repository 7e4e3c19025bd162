#include <exception>
#include <iostream>

#include "lint/cli/cli.h"

int main(int argc, char** argv) {
  try {
    return parlint::run_cli(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "parlint: internal error: " << e.what() << "\n";
    return 3;
  }
}
