// Connect Square sample agent: drops a coin in a random playable column.
// Run with no arguments in a directory holding input.txt (docs/games/connectsquare.md and docs/protocol.md);
// writes the column to output.txt. Build with `g++ -O2 -o connectsquare_random connectsquare_random.cpp`,
// then the referee runs it as `--agent name=cpp,cmd=./connectsquare_random,dir=samples/agents/cpp`.
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

int main() {
    std::ifstream in("input.txt");
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l);) {
        if (l.find_first_not_of(" \t\r") != std::string::npos) lines.push_back(l);
    }
    int rows = 0, cols = 0;
    std::istringstream(lines.at(4)) >> rows >> cols;
    const std::string& top = lines.at(5);
    std::vector<int> playable;
    for (int c = 0; c < cols; c++) {
        if (top.at(c) == '.' || top.at(c) == '0') playable.push_back(c);
    }
    std::mt19937 rng(std::random_device{}());
    std::uniform_int_distribution<size_t> pick(0, playable.size() - 1);
    std::ofstream("output.txt") << playable.at(pick(rng)) << "\n";
    return 0;
}
