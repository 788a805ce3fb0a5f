package io.ringtail.redis;

import io.ringtail.internal.Checks;
import java.util.Map;
import java.util.TreeMap;

/**
 * A Redis function library (FUNCTION LOAD, Redis 7) built from {@code .lua} resources of this
 * package: a shared prelude, then each script as the body of one function, called by FCALL. The
 * prelude's helpers are created once, when the library loads, not on every call as an EVALSHA
 * script's would be. Immutable.
 *
 * <p>The library and its functions are named after the SHA-1 of the code, so applications with
 * different versions of it can share one Redis; each script body sees its keys and arguments as
 * {@code KEYS} and {@code ARGV}, as under EVALSHA.
 */
final class LuaLibrary {
  /** The library's name: {@code ringtail_} and the first 16 hex digits of the code's SHA-1. */
  final String name;

  /** The source FUNCTION LOAD takes, its {@code #!lua} line first. */
  final String code;

  private final Map<String, Function> functions = new TreeMap<>();

  private LuaLibrary(String prelude, String... scripts) {
    StringBuilder body = new StringBuilder(LuaScript.load(prelude).body);
    for (String script : scripts) {
      String fn = script.substring(0, script.length() - ".lua".length());
      body.append("local function ")
          .append(fn)
          .append("(KEYS, ARGV)\n")
          .append(LuaScript.load(script).body)
          .append("end\n");
    }
    String hash = LuaScript.sha1(body.toString()).substring(0, 16);
    this.name = "ringtail_" + hash;
    StringBuilder code = new StringBuilder("#!lua name=").append(name).append('\n').append(body);
    for (String script : scripts) {
      String fn = script.substring(0, script.length() - ".lua".length());
      Function f = new Function(this, name + "_" + fn);
      functions.put(script, f);
      code.append("redis.register_function('")
          .append(f.name)
          .append("', ")
          .append(fn)
          .append(")\n");
    }
    this.code = code.toString();
  }

  static LuaLibrary of(String prelude, String... scripts) {
    return new LuaLibrary(prelude, scripts);
  }

  /** The function made of {@code script} (a resource name given to {@link #of}). */
  Function function(String script) {
    Function f = functions.get(script);
    if (f == null) {
      throw Checks.invalid("script", "a function of library " + name, script);
    }
    return f;
  }

  /** One function of a library: the name FCALL takes. */
  record Function(LuaLibrary library, String name) {
    @Override
    public String toString() {
      return name;
    }
  }
}
