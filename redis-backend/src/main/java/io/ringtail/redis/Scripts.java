package io.ringtail.redis;

/** The Lua scripts of this module, loaded once per class loader. */
final class Scripts {
  static final LuaScript WINDOW_RECORD = LuaScript.load("window_common.lua", "window_record.lua");
  static final LuaScript WINDOW_SNAPSHOT =
      LuaScript.load("window_common.lua", "window_snapshot.lua");
  static final LuaScript RATE_LIMIT = LuaScript.load("decision.lua", "rate_limit.lua");
  static final LuaScript BUCKETED_RATE_LIMIT =
      LuaScript.load("decision.lua", "bucketed_rate_limit.lua");
  static final LuaScript THRESHOLD = LuaScript.load("decision.lua", "threshold.lua");
  static final LuaScript SERVER_TIME = LuaScript.load("server_time.lua");
  static final LuaScript SUM_CAP = LuaScript.load("decision.lua", "sum_cap.lua");

  private Scripts() {}
}
