package io.ringtail.redis;

/** The histogram window's Lua scripts, loaded once per class loader. */
final class HistogramScripts {
  static final LuaScript PUBLISH = LuaScript.load("histogram_common.lua", "histogram_publish.lua");

  /** The field counts of a key's bucket hashes (keyed histogram windows). */
  static final LuaScript FIELD_COUNTS = LuaScript.load("fleet_field_counts.lua");

  private HistogramScripts() {}
}
