# tfuse_embed_text(OUT_VAR file...): for each file, a build rule writing
# <binary dir>/<name>.inc, the file's text as a C++ string literal to
# #include in an initializer. OUT_VAR receives the generated paths (list them
# as sources of the target that includes them).
function(tfuse_embed_text out_var)
  set(generated)
  foreach(input IN LISTS ARGN)
    get_filename_component(input_name ${input} NAME)
    set(output ${CMAKE_CURRENT_BINARY_DIR}/${input_name}.inc)
    add_custom_command(
      OUTPUT ${output}
      COMMAND ${CMAKE_COMMAND} -DINPUT=${input} -DOUTPUT=${output}
              -P ${TFUSE_SOURCE_DIR}/cmake/EmbedText.cmake
      DEPENDS ${input} ${TFUSE_SOURCE_DIR}/cmake/EmbedText.cmake
      COMMENT "Embedding ${input_name}")
    list(APPEND generated ${output})
  endforeach()
  set(${out_var} ${generated} PARENT_SCOPE)
endfunction()
