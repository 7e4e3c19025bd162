# Turns a text file into a C++ source defining `extern const std::string_view <symbol>`, so data files
# (cluster profiles, model tables) ship inside the binary.
function(parlint_embed_text input symbol output)
  add_custom_command(
    OUTPUT "${output}"
    COMMAND "${CMAKE_COMMAND}" -DINPUT=${input} -DSYMBOL=${symbol} -DOUTPUT=${output}
            -P "${PROJECT_SOURCE_DIR}/cmake/EmbedScript.cmake"
    DEPENDS "${input}" "${PROJECT_SOURCE_DIR}/cmake/EmbedScript.cmake"
    VERBATIM)
endfunction()
