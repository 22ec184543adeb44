#include "control.hpp"

#include <charconv>

namespace powerloss {

namespace {

std::string_view trim(std::string_view text) {
    const auto first = text.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) return {};
    const auto last = text.find_last_not_of(" \t\r");
    return text.substr(first, last - first + 1);
}

std::optional<Command> parse_line(std::string_view line) {
    const auto space = line.find(' ');
    const std::string_view word = line.substr(0, space);
    const std::string_view argument = space == std::string_view::npos ? "" : trim(line.substr(space + 1));
    if (word == "arm") {
        std::uint64_t count = 0;
        auto [end, error] = std::from_chars(argument.data(), argument.data() + argument.size(), count);
        if (error != std::errc() || end != argument.data() + argument.size() || count == 0) return std::nullopt;
        return Command{Command::Kind::arm, count};
    }
    if (!argument.empty()) return std::nullopt;
    if (word == "cut") return Command{Command::Kind::cut};
    if (word == "disarm") return Command{Command::Kind::disarm};
    if (word == "freeze") return Command{Command::Kind::freeze};
    if (word == "reset") return Command{Command::Kind::reset};
    if (word == "sync") return Command{Command::Kind::sync};
    return std::nullopt;
}

}  // namespace

std::optional<std::vector<Command>> parse_commands(std::string_view text) {
    std::vector<Command> commands;
    while (!text.empty()) {
        const auto newline = text.find('\n');
        const std::string_view line = trim(text.substr(0, newline));
        text = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
        if (line.empty()) continue;
        auto command = parse_line(line);
        if (!command) return std::nullopt;
        commands.push_back(*command);
    }
    return commands;
}

void PowerSwitch::count_operation() {
    ++operations_;
    if (armed_ && --remaining_ == 0) {
        armed_ = false;
        frozen_ = true;
    }
}

void PowerSwitch::arm(std::uint64_t operations) {
    armed_ = true;
    remaining_ = operations;
}

void PowerSwitch::power_on() {
    frozen_ = false;
    armed_ = false;
    ++cuts_;
}

std::string PowerSwitch::status(const Pending& pending, std::string_view model, std::string_view label) const {
    std::string text;
    text += "ops " + std::to_string(operations_) + "\n";
    text += "frozen " + std::string(frozen_ ? "1" : "0") + "\n";
    text += "cuts " + std::to_string(cuts_) + "\n";
    text += "pending_bytes " + std::to_string(pending.bytes) + "\n";
    text += "pending_dir_ops " + std::to_string(pending.directory_operations) + "\n";
    text += "armed " + (armed_ ? std::to_string(remaining_) : std::string("0")) + "\n";
    text += "model " + std::string(model) + "\n";
    if (!label.empty()) text += "label " + std::string(label) + "\n";
    return text;
}

}  // namespace powerloss
