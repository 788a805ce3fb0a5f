package io.ringtail.examples.shop;

import io.ringtail.RollingWindow;
import io.ringtail.redis.RedisRollingWindow;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The checkout endpoint: simulated work (around 12 ms, lognormal; 260 to 300 ms with {@code
 * ?slow=true}) whose latency is recorded into this instance's window and, when Redis is configured,
 * the fleet's. Thread-safe.
 */
@RestController
class CheckoutController {
  private final RollingWindow latency;
  private final RedisRollingWindow fleet;

  CheckoutController(
      @Qualifier("checkoutLatency") RollingWindow checkoutLatency,
      ObjectProvider<RedisRollingWindow> fleetCheckoutLatency) {
    this.latency = checkoutLatency;
    this.fleet = fleetCheckoutLatency.getIfAvailable();
  }

  @GetMapping("/checkout")
  Map<String, Object> checkout(@RequestParam(name = "slow", defaultValue = "false") boolean slow) {
    long start = latency.timeSource().nanoTime();
    ThreadLocalRandom random = ThreadLocalRandom.current();
    long workMillis =
        slow ? 260 + random.nextLong(40) : (long) Math.exp(random.nextGaussian() * 0.6 + 2.5);
    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(workMillis));
    long elapsed = latency.timeSource().nanoTime() - start;
    latency.recordAt(elapsed, start + elapsed);
    if (fleet != null) {
      fleet.record(elapsed);
    }
    return Map.of(
        "order", Long.toString(random.nextLong(1L << 40), 36), "millis", elapsed / 1_000_000);
  }
}
