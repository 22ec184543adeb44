// Runs `f`, expects it to throw a core Error of `kind`, returns the message
// ("" and a test failure when nothing, or another kind, is thrown).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "common/error.hpp"

namespace mlckpt::test {

template <typename F>
std::string error_message(core::ErrorKind kind, F&& f) {
    try {
        f();
    } catch (const core::Error& e) {
        EXPECT_EQ(e.kind(), kind) << e.what();
        return e.what();
    }
    ADD_FAILURE() << "no error was thrown";
    return "";
}

}  // namespace mlckpt::test
