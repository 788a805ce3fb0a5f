package io.ringtail.redis;

import io.ringtail.internal.Checks;
import java.util.ArrayList;
import java.util.List;

/**
 * The layout of a decision function's packed first argument ({@link PackedArgs}): fields of 8 bytes
 * each, in order, the deadline first, each named in Java by an {@link Arg} and in Lua by a short
 * local. A field is a whole number below 2^53, which Lua reads as a double ({@code d}) into its
 * local, or a long, which Lua reads as its unsigned 32-bit halves, high first ({@code I4I4}), into
 * two locals named after the field's with {@code h} and {@code l} appended. The one definition of
 * each function's arguments: Java writes them by {@link Arg}, and {@code DecisionLayoutTest} checks
 * that the script's {@code ARGS} format and its {@code struct.unpack} locals are exactly {@link
 * #luaFormat()} and {@link #luaLocals()}. What the functions answer is a {@link DecisionReply}.
 * Immutable.
 */
final class DecisionLayout {
  /** A decision function's argument, by its meaning; each layout holds some of them. */
  enum Arg {
    /** Server microseconds after which the call changes nothing (written per call). */
    DEADLINE,
    /** The decided request's, amount's or event's time, ns on the time base (per call). */
    TIME,
    /** The window, ns. */
    WINDOW,
    /** The bucketed limiter's sub-window width, ns. */
    BUCKET_WIDTH,
    /** Requests per window. */
    LIMIT,
    /** The least ns between two notifications for one key. */
    COOLDOWN,
    /** The sum cap, in units. */
    CAP,
    /** The amount, in units (per call). */
    AMOUNT,
    /** 1 if the amount alone exceeds the cap, else 0. */
    EXCEEDS,
    /** The sum cap's most entries kept per key. */
    MAX_ENTRIES,
    /** Events at or above which a key fires. */
    THRESHOLD,
    /** The threshold detector's most events kept per key. */
    MAX_EVENTS,
    /** Expired or surplus events one threshold call evicts at most. */
    CHUNK
  }

  static final DecisionLayout RATE_LIMIT =
      new DecisionLayout("rate_limit.lua")
          .number(Arg.DEADLINE, "deadline")
          .halves(Arg.TIME, "s")
          .number(Arg.WINDOW, "w")
          .number(Arg.LIMIT, "limit")
          .number(Arg.COOLDOWN, "cooldown");

  static final DecisionLayout BUCKETED_RATE_LIMIT =
      new DecisionLayout("bucketed_rate_limit.lua")
          .number(Arg.DEADLINE, "deadline")
          .halves(Arg.TIME, "t")
          .number(Arg.WINDOW, "w")
          .number(Arg.BUCKET_WIDTH, "g")
          .number(Arg.LIMIT, "limit")
          .number(Arg.COOLDOWN, "cooldown");

  static final DecisionLayout SUM_CAP =
      new DecisionLayout("sum_cap.lua")
          .number(Arg.DEADLINE, "deadline")
          .halves(Arg.TIME, "s")
          .number(Arg.WINDOW, "w")
          .halves(Arg.CAP, "c")
          .halves(Arg.AMOUNT, "a")
          .number(Arg.EXCEEDS, "exceeds")
          .number(Arg.MAX_ENTRIES, "max")
          .number(Arg.COOLDOWN, "cooldown");

  static final DecisionLayout THRESHOLD =
      new DecisionLayout("threshold.lua")
          .number(Arg.DEADLINE, "deadline")
          .halves(Arg.TIME, "t")
          .number(Arg.WINDOW, "w")
          .number(Arg.THRESHOLD, "threshold")
          .number(Arg.MAX_EVENTS, "cap")
          .number(Arg.COOLDOWN, "cooldown")
          .number(Arg.CHUNK, "chunk");

  /** One field: its meaning, its Lua local and whether it is a long sent as halves. */
  private record Field(Arg arg, String lua, boolean halves) {}

  private final String script;
  private final List<Field> fields;

  private DecisionLayout(String script) {
    this(script, List.of());
  }

  private DecisionLayout(String script, List<Field> fields) {
    this.script = script;
    this.fields = fields;
  }

  private DecisionLayout with(Field field) {
    List<Field> more = new ArrayList<>(fields);
    more.add(field);
    return new DecisionLayout(script, List.copyOf(more));
  }

  private DecisionLayout number(Arg arg, String lua) {
    return with(new Field(arg, lua, false));
  }

  private DecisionLayout halves(Arg arg, String lua) {
    return with(new Field(arg, lua, true));
  }

  /** The script (a resource beside this class) whose function reads this layout. */
  String script() {
    return script;
  }

  int size() {
    return fields.size();
  }

  /**
   * The position of the field {@code arg}, which must be a long ({@code halves}) or a whole number.
   */
  int index(Arg arg, boolean halves) {
    for (int i = 0; i < fields.size(); i++) {
      Field f = fields.get(i);
      if (f.arg() == arg) {
        if (f.halves() != halves) {
          throw Checks.invalid(
              "arg", (halves ? "a long" : "a whole number") + " argument of " + script, arg);
        }
        return i;
      }
    }
    throw Checks.invalid("arg", "an argument of " + script, arg);
  }

  /** The {@code struct.unpack} format the script's {@code ARGS} must be. */
  String luaFormat() {
    StringBuilder format = new StringBuilder(">");
    for (Field f : fields) {
      format.append(f.halves() ? "I4I4" : "d");
    }
    return format.toString();
  }

  /** The locals the script unpacks {@code ARGS} into, in order. */
  List<String> luaLocals() {
    List<String> locals = new ArrayList<>();
    for (Field f : fields) {
      if (f.halves()) {
        locals.add(f.lua() + "h");
        locals.add(f.lua() + "l");
      } else {
        locals.add(f.lua());
      }
    }
    return locals;
  }

  /** An empty argument of this layout, to fill by {@link Arg}. */
  PackedArgs args() {
    return new PackedArgs(this);
  }
}
