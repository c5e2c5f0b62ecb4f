// The wire form of floe's StatusCodes on the schema registry's API: Confluent's error codes
// (io.confluent.kafka.schemaregistry.rest.exceptions), in bodies
// {"error_code": 40401, "message": "..."} whose HTTP status is the code's first three digits
// (a three-digit code, 409 for an incompatible schema, is its own status).
//
// The routes answer most of their errors with the code of what they looked for (a subject,
// a version, a schema); RegistryErrorFor is the answer for a Status a registry call returned.
//
// Thread-safety: pure functions and constants.
#pragma once

#include "floe/base/status.h"

namespace floe::ingest::registry_error {

inline constexpr int kUnauthorized = 40101;
inline constexpr int kForbidden = 40301;
inline constexpr int kSubjectNotFound = 40401;
inline constexpr int kVersionNotFound = 40402;
inline constexpr int kSchemaNotFound = 40403;
inline constexpr int kSubjectSoftDeleted = 40404;
inline constexpr int kSubjectNotSoftDeleted = 40405;
inline constexpr int kVersionNotSoftDeleted = 40407;
inline constexpr int kCompatibilityNotFound = 40408;
inline constexpr int kIncompatible = 409;
inline constexpr int kInvalidSchema = 42201;
inline constexpr int kInvalidVersion = 42202;
inline constexpr int kInvalidCompatibility = 42203;
inline constexpr int kInvalidMode = 42204;
inline constexpr int kTooManyRequests = 42901;
inline constexpr int kStoreError = 50001;  // "error in the backend data store"
// Nothing was stored for want of space: HTTP 507, as the REST catalog answers.
inline constexpr int kInsufficientStorage = 50701;

}  // namespace floe::ingest::registry_error

namespace floe::ingest {

// The Confluent error code of a failed registry call's `code`, on a route whose missing
// object is `not_found_code` (registry_error::kSubjectNotFound, kVersionNotFound, ...).
// kOk, which is no error, maps like kInternal.
int RegistryErrorFor(StatusCode code, int not_found_code);

// The HTTP status of a Confluent error code: 40401 -> 404, 409 -> 409.
int RegistryHttpStatus(int error_code);

}  // namespace floe::ingest
