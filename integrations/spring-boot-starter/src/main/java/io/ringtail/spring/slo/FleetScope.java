package io.ringtail.spring.slo;

import io.ringtail.TimeSource;
import io.ringtail.internal.Checks;
import io.ringtail.redis.RedisBackend;
import io.ringtail.redis.RedisServiceLevel;
import io.ringtail.redis.StateBoard;
import io.ringtail.slo.ServiceLevel;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Fleet-wide service levels on the application's {@link RedisBackend} ({@code
 * backend.serviceLevelBuilder(config)}): each instance records into the fleet's counts and reads
 * them, and the instance that {@linkplain RedisServiceLevel#owns owns} an objective publishes its
 * alerts; which it fired is posted on a state board, so that the next owner goes on from there. A
 * service level declared with {@code fleet=false} stays in-process. Thread-safe.
 */
final class FleetScope implements Scope {
  private final Supplier<RedisBackend> backend;
  private final TimeSource time; // null: the Redis server's clock
  private final Scope inProcess;
  private final Map<String, StateBoard> boards = new ConcurrentHashMap<>();
  private static final System.Logger LOG = System.getLogger(FleetScope.class.getName());

  /**
   * Service levels on {@code backend} (looked up when the first is built), timed on {@code time}
   * when given (a base every instance shares) or else on the Redis server's clock; in-process ones
   * on {@code clock}.
   */
  FleetScope(Supplier<RedisBackend> backend, TimeSource time, TimeSource clock) {
    this.backend = backend;
    this.time = time;
    this.inProcess = Scope.inProcess(clock);
  }

  @Override
  public ServiceLevel build(Declared declared) {
    if (!declared.fleet) {
      return inProcess.build(declared);
    }
    try {
      RedisServiceLevel.Builder builder =
          backend
              .get()
              .serviceLevelBuilder(declared.config)
              .publishInterval(declared.publishInterval);
      if (time != null) {
        builder.timeSource(time);
      }
      return builder.build();
    } catch (IllegalArgumentException e) {
      throw Checks.atProperty("ringtail.slo." + declared.config.name(), e);
    }
  }

  /**
   * The fired alerts are posted on a state board per service level ({@code slo:<name>}, one entry
   * per objective: a {@code 0} or {@code 1} per alert), kept for the period after the last post.
   */
  @Override
  public boolean[] firedBefore(ServiceLevel level, String objective) {
    if (!(level instanceof RedisServiceLevel)) {
      return null;
    }
    try {
      String posted = board(level).read().get(objective);
      if (posted == null || posted.length() != level.config().alerts().size()) {
        return null;
      }
      boolean[] fired = new boolean[posted.length()];
      for (int i = 0; i < fired.length; i++) {
        fired[i] = posted.charAt(i) == '1';
      }
      return fired;
    } catch (RuntimeException e) {
      LOG.log(
          System.Logger.Level.WARNING,
          "Service level "
              + level.config().name()
              + ": fired alerts of the previous owner"
              + " unreadable; "
              + objective
              + "'s alerts start unfired: "
              + e);
      return null;
    }
  }

  @Override
  public void post(ServiceLevel level, String objective, boolean[] fired) {
    if (!(level instanceof RedisServiceLevel)) {
      return;
    }
    StringBuilder b = new StringBuilder(fired.length);
    for (boolean f : fired) {
      b.append(f ? '1' : '0');
    }
    try {
      board(level).post(Map.of(objective, b.toString()));
    } catch (RuntimeException e) {
      LOG.log(
          System.Logger.Level.WARNING,
          "Service level "
              + level.config().name()
              + ": fired alerts of "
              + objective
              + " not posted; a next owner may page them again: "
              + e);
    }
  }

  private StateBoard board(ServiceLevel level) {
    return boards.computeIfAbsent(
        level.config().name(),
        name -> backend.get().stateBoard("slo:" + name, level.config().period()));
  }

  @Override
  public boolean owns(ServiceLevel level, String objective) {
    return !(level instanceof RedisServiceLevel fleet) || fleet.owns(objective);
  }

  @Override
  public String of(ServiceLevel level) {
    return level instanceof RedisServiceLevel ? "fleet" : "in-process";
  }

  @Override
  public void close(ServiceLevel level) {
    if (level instanceof RedisServiceLevel fleet) {
      fleet.close();
    }
  }
}
