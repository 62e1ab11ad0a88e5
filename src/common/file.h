// Whole-file reads and atomic writes, with errors that name the path. Thread-safe (no shared
// state; concurrent writers of one path race on its rename like any two processes would).
#pragma once

#include <string>

#include "common/status.h"

namespace etna {

// The file's bytes (binary, unchanged). NotFound "cannot read <path>: <reason>" when it cannot
// be opened or read.
Result<std::string> ReadFile(const std::string& path);

// Writes `contents` to "<path>.tmp" with permission bits `mode`, fsyncs it and renames it over
// `path`, so readers see the old file or the new one, never a part. Unavailable naming the
// path and the reason when any step fails.
Status WriteFileAtomically(const std::string& path, const std::string& contents, int mode);

}  // namespace etna
