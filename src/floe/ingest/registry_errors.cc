#include "floe/ingest/registry_errors.h"

namespace floe::ingest {

int RegistryErrorFor(StatusCode code, int not_found_code) {
  switch (code) {
    case StatusCode::kNotFound: return not_found_code;
    // The registry refuses a schema that does not parse or whose references do not resolve
    // with InvalidArgument.
    case StatusCode::kInvalidArgument: return registry_error::kInvalidSchema;
    // A schema the subject's compatibility level refuses.
    case StatusCode::kConflict: return registry_error::kIncompatible;
    case StatusCode::kResourceExhausted: return registry_error::kInsufficientStorage;
    // Confluent answers every failure of its store, and anything else unexpected, with 50001.
    // The routes answer the preconditions they know (a delete of what is not soft-deleted:
    // 40405, 40407) before a Status gets here, and the server refuses principals (40101,
    // 40301) before the registry runs: a PermissionDenied from a registry call is its store's
    // file (EACCES), not the client's.
    case StatusCode::kOk:
    case StatusCode::kAlreadyExists:
    case StatusCode::kFailedPrecondition:
    case StatusCode::kUnavailable:
    case StatusCode::kDeadlineExceeded:
    case StatusCode::kUnauthenticated:
    case StatusCode::kPermissionDenied:
    case StatusCode::kCorrupt:
    case StatusCode::kUnimplemented:
    case StatusCode::kIOError:
    case StatusCode::kInternal: return registry_error::kStoreError;
  }
  return registry_error::kStoreError;
}

int RegistryHttpStatus(int error_code) { return error_code < 1000 ? error_code : error_code / 100; }

}  // namespace floe::ingest
