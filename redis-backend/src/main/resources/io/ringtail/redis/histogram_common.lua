-- Shared by the histogram window's scripts. A bucket is two keys under its group's hash tag:
--   counts (string): a MessagePack array [slot, count, slot, count, ...] with ascending slots,
--                    the fleet's merged histogram of the bucket;
--   meta (hash):     n (count), s (exact sum), r (rejected), lo (min), hi (max) as decimal
--                    strings, and one field 'p:<publisher>' = '<last applied seq>' per process
--                    that published into the bucket.
-- and each group has one more key under the same tag:
--   freshness (hash): '<publisher>' = '<as-of nanos> <bucket>' of that process's latest
--                    publication into the group's buckets.

-- Whether non-negative decimal string a is smaller than b, exactly (no float rounding).
local function decimalLess(a, b)
  if #a ~= #b then
    return #a < #b
  end
  return a < b
end

-- Merges two [slot, count, ...] arrays with ascending slots into a new one.
local function mergeSlots(a, b)
  local out = {}
  local i, j, n = 1, 1, 0
  local na, nb = #a, #b
  while i <= na or j <= nb do
    if j > nb or (i <= na and a[i] < b[j]) then
      out[n + 1], out[n + 2] = a[i], a[i + 1]
      i = i + 2
    elseif i > na or b[j] < a[i] then
      out[n + 1], out[n + 2] = b[j], b[j + 1]
      j = j + 2
    else
      out[n + 1], out[n + 2] = a[i], a[i + 1] + b[j + 1]
      i = i + 2
      j = j + 2
    end
    n = n + 2
  end
  return out
end
