// FTI_GetConfig's structure, filled from a session.
#pragma once

#include "fti.h"
#include "runtime/session.hpp"

namespace mlckpt::capi {

// The members with a meaning in mlckpt, as FTI 1.6 fills them; the others
// zero (docs/api.md#fti_getconfig).
FTIT_allConfiguration all_configuration(const core::Session& session);

}  // namespace mlckpt::capi
