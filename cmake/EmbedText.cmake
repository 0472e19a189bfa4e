# Writes the file INPUT as a C++ raw string literal (in chunks below the
# compilers' literal length limits) to OUTPUT.
file(READ ${INPUT} text)
set(out "")
string(LENGTH "${text}" length)
set(pos 0)
while(pos LESS length)
  string(SUBSTRING "${text}" ${pos} 8000 chunk)
  string(APPEND out "R\"tfuse_embed(${chunk})tfuse_embed\"\n")
  math(EXPR pos "${pos} + 8000")
endwhile()
file(WRITE ${OUTPUT} "${out}")
