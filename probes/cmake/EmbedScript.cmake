# Writes INPUT (a text file) into OUTPUT as a C++ string constant.
file(READ ${INPUT} content)
string(LENGTH "${content}" length)
if(length GREATER 60000)
  message(FATAL_ERROR "${INPUT} is ${length} bytes; keep it under 60000 (ISO C++ string limit)")
endif()
string(FIND "${content}" ")bevenvpy\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw string delimiter )bevenvpy\"")
endif()
file(WRITE ${OUTPUT}.tmp "// Generated from probes/python/probe_env.py; do not edit.\n"
  "namespace bevenv::probe_tool {\n"
  "extern const char* const kProbeEnvScript;\n"
  "const char* const kProbeEnvScript = R\"bevenvpy(${content})bevenvpy\";\n"
  "}  // namespace bevenv::probe_tool\n")
file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUTPUT}.tmp)
