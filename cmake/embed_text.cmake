# cmake -DIN=FILE -DOUT=HEADER -DNAME=SYMBOL -P embed_text.cmake
# Writes HEADER declaring `static const char SYMBOL[]`: the bytes of FILE,
# NUL-terminated, as a byte list (no string-literal length limits). Used to
# put abi/tensormap_rules.h into generated C launchers (target/cuda/c_launcher.c).
file(READ "${IN}" hex HEX)
string(REGEX REPLACE "(..)" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(([^,]*,){16})" "\\1\n  " bytes "${bytes}")
file(WRITE "${OUT}.tmp"
     "/* Generated from ${IN} by cmake/embed_text.cmake. Do not edit. */\n"
     "static const char ${NAME}[] = {\n  ${bytes}0x00};\n")
configure_file("${OUT}.tmp" "${OUT}" COPYONLY) # rewrites only when it differs
file(REMOVE "${OUT}.tmp")
