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

Command make(Command::Kind kind, std::uint64_t count = 0) {
    Command command;
    command.kind = kind;
    command.count = count;
    return command;
}

std::optional<std::uint64_t> number(std::string_view text) {
    std::uint64_t value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

std::optional<Command> parse_line(std::string_view line) {
    const auto space = line.find(' ');
    const std::string_view word = line.substr(0, space);
    const std::string_view argument = space == std::string_view::npos ? "" : trim(line.substr(space + 1));
    if (word == "arm" || word == "node-size") {
        const auto count = number(argument);
        if (!count || *count == 0) return std::nullopt;
        return make(word == "arm" ? Command::Kind::arm : Command::Kind::node_size, *count);
    }
    if (word == "arm-node") {  // arm-node K NODE STORAGE
        const auto first_space = argument.find(' ');
        if (first_space == std::string_view::npos) return std::nullopt;
        const std::string_view rest = trim(argument.substr(first_space + 1));
        const auto second_space = rest.find(' ');
        if (second_space == std::string_view::npos) return std::nullopt;
        const auto count = number(argument.substr(0, first_space));
        const auto node = number(rest.substr(0, second_space));
        const std::string_view storage = trim(rest.substr(second_space + 1));
        // The storage is a folder below the mount's root, named from it.
        if (!count || *count == 0 || !node || storage.empty() || storage.front() == '/' ||
            storage.find("..") != std::string_view::npos)
            return std::nullopt;
        Command command = make(Command::Kind::arm_node, *count);
        command.node = static_cast<int>(*node);
        command.storage = std::string(storage);
        return command;
    }
    if (!argument.empty()) return std::nullopt;
    if (word == "cut") return make(Command::Kind::cut);
    if (word == "disarm") return make(Command::Kind::disarm);
    if (word == "freeze") return make(Command::Kind::freeze);
    if (word == "reset") return make(Command::Kind::reset);
    if (word == "sync") return make(Command::Kind::sync);
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
        if (node_cut_) {
            node_down_ = node_cut_->node;
            due_ = std::exchange(node_cut_, std::nullopt);
        } else {
            frozen_ = true;
        }
    }
}

void PowerSwitch::arm(std::uint64_t operations) {
    armed_ = true;
    remaining_ = operations;
    node_cut_.reset();
}

void PowerSwitch::arm_node(std::uint64_t operations, NodeCut cut) {
    arm(operations);
    node_cut_ = std::move(cut);
}

void PowerSwitch::power_on() {
    frozen_ = false;
    armed_ = false;
    node_cut_.reset();
    due_.reset();
    node_down_.reset();
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
    text += "node_down " + (node_down_ ? std::to_string(*node_down_) : std::string("-")) + "\n";
    text += "model " + std::string(model) + "\n";
    if (!label.empty()) text += "label " + std::string(label) + "\n";
    return text;
}

}  // namespace powerloss
