package io.ringtail.redis;

/** The histogram window's Lua scripts, loaded once per class loader. */
final class HistogramScripts {
  static final LuaScript PUBLISH = LuaScript.load("histogram_common.lua", "histogram_publish.lua");

  /** The versions of a key's bucket hashes (keyed histogram windows). */
  static final LuaScript FIELD_COUNTS = LuaScript.load("fleet_field_counts.lua");

  /** Merges a key's bucket's fields into one (keyed histogram windows). */
  static final LuaScript COMPACT = LuaScript.load("fleet_compact.lua");

  private HistogramScripts() {}
}
