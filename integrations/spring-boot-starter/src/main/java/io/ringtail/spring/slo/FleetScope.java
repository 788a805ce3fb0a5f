package io.ringtail.spring.slo;

import io.ringtail.TimeSource;
import io.ringtail.internal.Checks;
import io.ringtail.redis.RedisBackend;
import io.ringtail.redis.RedisServiceLevel;
import io.ringtail.slo.ServiceLevel;
import java.util.function.Supplier;

/**
 * Fleet-wide service levels on the application's {@link RedisBackend} ({@code
 * backend.serviceLevelBuilder(config)}): each instance records into the fleet's counts and reads
 * them, and the instance that {@linkplain RedisServiceLevel#owns owns} an objective publishes its
 * alerts. A service level declared with {@code fleet=false} stays in-process. Thread-safe.
 */
final class FleetScope implements Scope {
  private final Supplier<RedisBackend> backend;
  private final TimeSource time; // null: the Redis server's clock
  private final Scope inProcess;

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
