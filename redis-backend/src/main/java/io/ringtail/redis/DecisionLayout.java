package io.ringtail.redis;

import java.util.ArrayList;
import java.util.List;

/**
 * The layout of a decision function's packed first argument ({@link PackedArgs}): named fields of 8
 * bytes each, in order, the deadline first. A field is a whole number below 2^53, which Lua reads
 * as a double ({@code d}) into a local of the field's name, or a long, which Lua reads as its
 * unsigned 32-bit halves, high first ({@code I4I4}), into two locals named after the field with
 * {@code h} and {@code l} appended. The one definition of each function's arguments: Java writes
 * them by name, and {@code DecisionLayoutTest} checks that the script's {@code ARGS} format and its
 * {@code struct.unpack} locals are exactly {@link #luaFormat()} and {@link #luaLocals()}.
 * Immutable.
 */
final class DecisionLayout {
  static final DecisionLayout RATE_LIMIT =
      new DecisionLayout("rate_limit.lua")
          .number("deadline")
          .halves("s")
          .number("w")
          .number("limit")
          .number("cooldown");

  static final DecisionLayout BUCKETED_RATE_LIMIT =
      new DecisionLayout("bucketed_rate_limit.lua")
          .number("deadline")
          .halves("t")
          .number("w")
          .number("g")
          .number("limit")
          .number("cooldown");

  static final DecisionLayout SUM_CAP =
      new DecisionLayout("sum_cap.lua")
          .number("deadline")
          .halves("s")
          .number("w")
          .halves("c")
          .halves("a")
          .number("exceeds")
          .number("max")
          .number("cooldown");

  static final DecisionLayout THRESHOLD =
      new DecisionLayout("threshold.lua")
          .number("deadline")
          .halves("t")
          .number("w")
          .number("threshold")
          .number("cap")
          .number("cooldown")
          .number("chunk");

  /** One field: its name and whether it is a long sent as halves. */
  private record Field(String name, boolean halves) {}

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

  private DecisionLayout number(String name) {
    return with(new Field(name, false));
  }

  private DecisionLayout halves(String name) {
    return with(new Field(name, true));
  }

  /** The script (a resource beside this class) whose function reads this layout. */
  String script() {
    return script;
  }

  int size() {
    return fields.size();
  }

  /**
   * The position of the field {@code name}, which must be a long ({@code halves}) or a whole
   * number.
   */
  int index(String name, boolean halves) {
    for (int i = 0; i < fields.size(); i++) {
      Field f = fields.get(i);
      if (f.name().equals(name)) {
        if (f.halves() != halves) {
          throw new IllegalArgumentException(
              script + "'s " + name + " is " + (f.halves() ? "a long" : "a whole number"));
        }
        return i;
      }
    }
    throw new IllegalArgumentException(script + " has no argument " + name);
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
        locals.add(f.name() + "h");
        locals.add(f.name() + "l");
      } else {
        locals.add(f.name());
      }
    }
    return locals;
  }

  /** An empty argument of this layout, to fill by name. */
  PackedArgs args() {
    return new PackedArgs(this);
  }
}
