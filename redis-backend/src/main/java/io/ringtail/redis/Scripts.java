package io.ringtail.redis;

/** The Lua scripts of this module, loaded once per class loader. */
final class Scripts {
  static final LuaScript WINDOW_RECORD = LuaScript.load("window_common.lua", "window_record.lua");
  static final LuaScript WINDOW_SNAPSHOT =
      LuaScript.load("window_common.lua", "window_snapshot.lua").readOnly();

  /** The decisions whose state is one string (decision.lua), as functions of one library. */
  static final LuaLibrary DECISIONS =
      LuaLibrary.of("decision.lua", "rate_limit.lua", "bucketed_rate_limit.lua", "sum_cap.lua");

  static final LuaLibrary.Function RATE_LIMIT = DECISIONS.function("rate_limit.lua");
  static final LuaLibrary.Function BUCKETED_RATE_LIMIT =
      DECISIONS.function("bucketed_rate_limit.lua");
  static final LuaLibrary.Function SUM_CAP = DECISIONS.function("sum_cap.lua");
  static final LuaScript THRESHOLD = LuaScript.load("decision.lua", "threshold.lua");
  static final LuaScript SERVER_TIME = LuaScript.load("server_time.lua").readOnly();

  private Scripts() {}
}
