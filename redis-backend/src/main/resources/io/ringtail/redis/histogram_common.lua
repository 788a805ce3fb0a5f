-- Shared by the histogram window's scripts. Under its group's hash tag a bucket has two keys:
--   counts (string): a MessagePack array: the bucket's exact count, sum, min, max and rejected
--                    as decimal strings (copies of meta's), then [slot, count, ...] with
--                    ascending slots: the fleet's merged histogram, readable with one GET;
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
-- of b (both with ascending slots).
local function mergeSlotsInto(out, a, ia, b)
  local i, j, n = ia, 1, #out
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
