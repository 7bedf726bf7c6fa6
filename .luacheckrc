std = 'luajit'
globals = { 'vim' }
max_line_length = 130
ignore = {
  '212/_.*', -- unused arguments named with a leading underscore
}
