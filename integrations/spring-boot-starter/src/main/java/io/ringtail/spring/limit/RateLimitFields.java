package io.ringtail.spring.limit;

import java.time.Duration;

/**
 * The header fields of draft-ietf-httpapi-ratelimit-headers on one answer of the limit filters:
 * {@code RateLimit-Policy}, a member per limit applied to the request ({@code "api";q=100;w=60}),
 * and {@code RateLimit}, a member per limit decided ({@code "api";r=41}, or {@code "api";r=0;t=37}
 * with the seconds until a request would be admitted). The servlet filter and the web filter write
 * these values; the grammar is formatted here only. Immutable and thread-safe.
 *
 * <p>Members are added in the order the limits are decided, each a new value over the ones before
 * it; a field's value is formatted when it is read.
 */
final class RateLimitFields {
  /** The name of the field that lists each limit's policy. */
  static final String POLICY_FIELD = "RateLimit-Policy";

  /** The name of the field that lists what each limit decided. */
  static final String STATE_FIELD = "RateLimit";

  /** No limit applied yet: the value every answer's fields start from. */
  static final RateLimitFields NONE = new RateLimitFields(null, null, -1, -1);

  private final RateLimitFields before;
  private final Policy policy;
  private final long remaining;
  private final long reset;

  private RateLimitFields(RateLimitFields before, Policy policy, long remaining, long reset) {
    this.before = before;
    this.policy = policy;
    this.remaining = remaining;
    this.reset = reset;
  }

  /** These fields and {@code policy}'s members: {@code r} remaining, no {@code t}. */
  RateLimitFields and(Policy policy, long remaining) {
    return new RateLimitFields(this, policy, remaining, -1);
  }

  /** These fields and {@code policy}'s members: {@code r} remaining, {@code t} seconds. */
  RateLimitFields and(Policy policy, long remaining, long reset) {
    return new RateLimitFields(this, policy, remaining, reset);
  }

  /** These fields and {@code policy}'s policy member alone: the limit decided nothing. */
  RateLimitFields andUndecided(Policy policy) {
    return new RateLimitFields(this, policy, -1, -1);
  }

  /** Whether no limit applied. */
  boolean isEmpty() {
    return policy == null;
  }

  /** The {@code RateLimit-Policy} field value: a member per limit applied; "" if none. */
  String policy() {
    if (policy == null) {
      return "";
    }
    if (before.policy == null) {
      return policy.member;
    }
    StringBuilder field = new StringBuilder(64);
    appendPolicy(field);
    return field.toString();
  }

  private void appendPolicy(StringBuilder field) {
    if (before.policy != null) {
      before.appendPolicy(field);
      field.append(", ");
    }
    field.append(policy.member);
  }

  /** The {@code RateLimit} field value: a member per limit decided; null if none was. */
  String state() {
    if (policy == null) {
      return null;
    }
    if (before.policy == null) {
      return remaining < 0
          ? null
          : reset < 0
              ? policy.quoted + ";r=" + remaining
              : policy.quoted + ";r=" + remaining + ";t=" + reset;
    }
    StringBuilder field = new StringBuilder(64);
    appendState(field);
    return field.length() == 0 ? null : field.toString();
  }

  private void appendState(StringBuilder field) {
    if (before.policy != null) {
      before.appendState(field);
    }
    if (remaining < 0) {
      return;
    }
    if (field.length() > 0) {
      field.append(", ");
    }
    field.append(policy.quoted).append(";r=").append(remaining);
    if (reset >= 0) {
      field.append(";t=").append(reset);
    }
  }

  /** Equal when they write the same fields. */
  @Override
  public boolean equals(Object o) {
    return o instanceof RateLimitFields f
        && policy().equals(f.policy())
        && String.valueOf(state()).equals(String.valueOf(f.state()));
  }

  @Override
  public int hashCode() {
    return policy().hashCode() * 31 + String.valueOf(state()).hashCode();
  }

  @Override
  public String toString() {
    return POLICY_FIELD + ": " + policy() + "; " + STATE_FIELD + ": " + state();
  }

  /**
   * Whole seconds, rounded up, as the fields and {@code Retry-After} give a duration: a client that
   * waits this long is past it.
   */
  static long seconds(Duration d) {
    long nanos = d.toNanos();
    return nanos / 1_000_000_000L + (nanos % 1_000_000_000L == 0 ? 0 : 1);
  }

  /**
   * A limit's policy: its name, quota {@code q} and window {@code w} in seconds; its member of
   * {@code RateLimit-Policy} formatted once. Immutable.
   */
  static final class Policy {
    final String name;
    final String quoted;
    final String member;

    /** The policy of {@code quota} per {@code window}, rounded up to whole seconds. */
    Policy(String name, long quota, Duration window) {
      this.name = name;
      this.quoted = "\"" + name + "\"";
      this.member = quoted + ";q=" + quota + ";w=" + seconds(window);
    }

    @Override
    public String toString() {
      return member;
    }
  }
}
