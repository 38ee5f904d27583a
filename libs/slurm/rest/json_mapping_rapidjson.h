#pragma once

// RapidJSON as the JSON mapping builds it; every json_mapping_*.cc includes this before
// anything else of RapidJSON.
//
// RapidJSON in a namespace of its own, so these files may build it with SSE2 whitespace
// skipping (x86-64 baseline) without two definitions of the same templates elsewhere.
// Only the mapping's own files include this header: the alias below is theirs alone.

#if defined(__SSE2__) && !defined(RAPIDJSON_SSE2)
#define RAPIDJSON_SSE2
#endif
#define RAPIDJSON_NAMESPACE tidepool_rest_rapidjson

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace rapidjson = ::tidepool_rest_rapidjson;
