// The wire form of floe's StatusCodes on its JSON HTTP APIs: the Iceberg REST catalog and the
// management API, which share the REST error model ({"error": {"message", "type", "code"}}) so
// that a client sees one status and type per kind of failure on either. The REST catalog
// refines a few of them per route (NoSuchTableException, CommitStateUnknownException, ...:
// rest_catalog_service.cc); everything else comes from this one table.
//
// Thread-safety: pure functions.
#pragma once

#include <string_view>

#include "floe/base/status.h"
#include "floe/http/http.h"

namespace floe::rest {

struct HttpError {
  int status;             // HTTP status
  std::string_view type;  // the Java exception name Iceberg clients branch on
};

// The HTTP status and error type of `code`. kOk, which is no error, maps like kInternal (a
// caller that answers an OK status as an error has a bug).
HttpError HttpErrorFor(StatusCode code);

// The REST error response of `status` by HttpErrorFor, its message as the message.
http::HttpResponse ErrorFromStatus(const Status& status);

// The answer for an exception that escaped a handler while it read the client's JSON
// (nlohmann's type_error, out_of_range, invalid_iterator: a field of the wrong type, a missing
// element): a 400 with a short message, never the library's exception text.
http::HttpResponse BadJsonTypeResponse();

}  // namespace floe::rest
