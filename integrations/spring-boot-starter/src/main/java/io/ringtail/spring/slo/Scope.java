package io.ringtail.spring.slo;

import io.ringtail.TimeSource;
import io.ringtail.slo.ServiceLevel;

/**
 * Where a declared service level counts: in this process, or across the fleet on a Redis backend
 * (where one instance owns each objective's alerts). Implementations are thread-safe.
 */
interface Scope {
  /** Builds the service level of {@code declared}. */
  ServiceLevel build(Declared declared);

  /** Whether this instance publishes {@code objective}'s fires and resolves. */
  boolean owns(ServiceLevel level, String objective);

  /**
   * Which of {@code objective}'s alerts the previous owner had fired, as it posted them (null: none
   * posted, or this scope has no other owner): read by an instance that starts to own the
   * objective, so that it neither pages a fire again nor leaves it unresolved.
   */
  default boolean[] firedBefore(ServiceLevel level, String objective) {
    return null;
  }

  /** Posts which of {@code objective}'s alerts this owner has fired, for the next owner. */
  default void post(ServiceLevel level, String objective, boolean[] fired) {}

  /** {@code in-process} or {@code fleet}. */
  String of(ServiceLevel level);

  /** Stops what the service level runs (a fleet one's publication); idempotent. */
  void close(ServiceLevel level);

  /** In-process service levels on {@code time}: every instance owns its own alerts. */
  static Scope inProcess(TimeSource time) {
    return new Scope() {
      @Override
      public ServiceLevel build(Declared declared) {
        return ServiceLevel.inProcess(declared.config, time);
      }

      @Override
      public boolean owns(ServiceLevel level, String objective) {
        return true;
      }

      @Override
      public String of(ServiceLevel level) {
        return "in-process";
      }

      @Override
      public void close(ServiceLevel level) {}
    };
  }
}
