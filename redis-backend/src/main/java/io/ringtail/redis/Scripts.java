package io.ringtail.redis;

/** The Lua scripts of this module, loaded once per class loader. */
final class Scripts {
  static final LuaScript WINDOW_RECORD = LuaScript.load("window_record.lua");
  static final LuaScript WINDOW_SNAPSHOT = LuaScript.load("window_snapshot.lua");

  private Scripts() {}
}
