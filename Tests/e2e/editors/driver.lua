-- Drives the Neovim setup of docs/editors.md (loaded as init.lua) as a user would: :WorkspaceFiles,
-- then a file changed from outside Neovim; every vim.notify message is appended to $OUT.
local out = assert(io.open(os.getenv('OUT'), 'w'))
local seen = {}
vim.notify = function(msg) table.insert(seen, msg); out:write(msg, '\n'); out:flush() end
local function wait_for(pattern)
  return vim.wait(15000, function()
    for _, m in ipairs(seen) do if m:find(pattern) then return true end end
    return false
  end, 50)
end
local ok, err = pcall(function()
  vim.cmd('WorkspaceFiles')
  assert(wait_for('notes%.txt'), 'no listFiles answer')
  local f = assert(io.open(vim.fn.getcwd() .. '/made-outside.txt', 'w')); f:write('x'); f:close()
  assert(wait_for('created made%-outside%.txt'), 'no didChangeFiles')
end)
out:write(ok and 'DONE\n' or ('FAILED ' .. tostring(err) .. '\n')); out:close()
vim.cmd(ok and 'qa!' or 'cq!')
