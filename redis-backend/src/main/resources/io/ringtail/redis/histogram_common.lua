-- Shared by the histogram window's scripts. Under its group's hash tag a bucket has two keys:
--   counts (string): a MessagePack array: the bucket's exact count, sum, min, max and rejected
--                    as decimal strings (copies of meta's), then [slot gap, count, ...]
--                    (ascending slots, each written less the one before, the first as is):
--                    the fleet's merged histogram, readable with one GET;
--   meta (hash):     n (count), s (exact sum), r (rejected), lo (min), hi (max) as decimal
--                    strings, added exactly by HINCRBY, and one field 'p:<publisher>' =
--                    '<last applied seq>' per process that published into the bucket.
-- and each group has one more:
--   freshness (string): a MessagePack array [publisher, as-of nanos, bucket, ...] (strings):
--                    each process's latest publication into the group's buckets.

-- Whether non-negative decimal string a is smaller than b, exactly (no float rounding).
local function decimalLess(a, b)
  if #a ~= #b then
    return #a < #b
  end
  return a < b
end

-- Appends to out the merge of the [slot, count, ...] run of a starting at index ia and the one
-- of b. Slots ascend and are written as gaps: each one less the one before (the first as is).
local function mergeSlotsInto(out, a, ia, b)
  local i, j, n, last = ia, 1, #out, 0
  local na, nb = #a, #b
  local sa, sb = a[ia] or 0, b[1] or 0
  while i <= na or j <= nb do
    local slot, count
    if j > nb or (i <= na and sa < sb) then
      slot, count = sa, a[i + 1]
      i = i + 2
      if i <= na then sa = sa + a[i] end
    elseif i > na or sb < sa then
      slot, count = sb, b[j + 1]
      j = j + 2
      if j <= nb then sb = sb + b[j] end
    else
      slot, count = sa, a[i + 1] + b[j + 1]
      i = i + 2
      j = j + 2
      if i <= na then sa = sa + a[i] end
      if j <= nb then sb = sb + b[j] end
    end
    out[n + 1], out[n + 2] = slot - last, count
    last = slot
    n = n + 2
  end
  return out
end
