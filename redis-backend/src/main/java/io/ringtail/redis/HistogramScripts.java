package io.ringtail.redis;

/** The histogram window's Lua scripts, loaded once per class loader. */
final class HistogramScripts {
  static final LuaScript PUBLISH = LuaScript.load("histogram_common.lua", "histogram_publish.lua");

  private HistogramScripts() {}
}
