std = 'luajit'
globals = { 'vim' }
max_line_length = 160
ignore = {
  '212/_.*', -- unused arguments named with a leading underscore
}
