package io.ringtail.redis;

/** The fleet histogram engine's Lua scripts, loaded once per class loader. */
final class HistogramScripts {
  /** Commits a group's merge by compare-and-set ({@link FleetMerger}). */
  static final LuaScript MERGE = LuaScript.load("fleet_merge.lua");

  /** Sets a group's summary by compare-and-set, when nothing was merged ({@link FleetMerger}). */
  static final LuaScript SUMMARY = LuaScript.load("fleet_summary.lua");

  /** Renews a group's merger lease. */
  static final LuaScript LEASE = LuaScript.load("fleet_lease.lua");

  private HistogramScripts() {}
}
