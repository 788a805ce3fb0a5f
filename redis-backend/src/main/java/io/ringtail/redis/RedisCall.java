package io.ringtail.redis;

import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;

/**
 * One call {@link ScriptRunner} sends to Redis: a script by EVALSHA, a library function by FCALL,
 * or a plain command. Arguments and reply are bytes whatever the connection's codec: in the reply,
 * bulk strings are {@code byte[]} (null for nil), integers {@code Long}, arrays {@code List}.
 */
sealed interface RedisCall {

  /** A script's call; {@code keys} are confirmed in strict mode unless the script only reads. */
  record Script(LuaScript script, String[] keys, byte[][] args) implements RedisCall {}

  /** A library function's call; its keys are confirmed in strict mode. */
  record Function(LuaLibrary.Function function, String[] keys, byte[][] args)
      implements RedisCall {}

  /**
   * A plain command (every key in one hash slot on a cluster); in strict mode a write succeeds only
   * once the confirming replicas hold {@code writtenKey}'s connection's writes so far (null: a
   * read, or a write a later write's confirmation covers).
   */
  record Command(CommandType type, CommandArgs<String, String> args, String writtenKey)
      implements RedisCall {}

  static RedisCall script(LuaScript script, String[] keys, byte[][] args) {
    return new Script(script, keys, args);
  }

  static RedisCall function(LuaLibrary.Function function, String[] keys, byte[][] args) {
    return new Function(function, keys, args);
  }

  /** A command no confirmation waits for. */
  static RedisCall command(CommandType type, CommandArgs<String, String> args) {
    return new Command(type, args, null);
  }

  /** A command of keys alone, no confirmation waits for. */
  static RedisCall command(CommandType type, String... keys) {
    return new Command(type, new CommandArgs<>(StringCodec.UTF8).addKeys(keys), null);
  }

  /** A write whose success, in strict mode, waits for the replicas' confirmation. */
  static RedisCall write(CommandType type, CommandArgs<String, String> args, String writtenKey) {
    return new Command(type, args, writtenKey);
  }
}
