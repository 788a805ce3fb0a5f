package io.ringtail.examples.shop;

import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The shop's endpoints, plain Spring MVC: simulated work of around 12 ms (lognormal), 260 to 300 ms
 * for a checkout with {@code ?slow=true}. Thread-safe.
 */
@RestController
class CheckoutController {

  @GetMapping("/orders/{id}")
  Map<String, Object> order(@PathVariable("id") String id) {
    work(false);
    return Map.of("order", id, "status", "shipped");
  }

  @PostMapping("/checkout")
  Map<String, Object> checkout(@RequestParam(name = "slow", defaultValue = "false") boolean slow) {
    long millis = work(slow);
    return Map.of(
        "order",
        Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36),
        "millis",
        millis);
  }

  private static long work(boolean slow) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    long millis =
        slow ? 260 + random.nextLong(40) : (long) Math.exp(random.nextGaussian() * 0.6 + 2.5);
    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(millis));
    return millis;
  }
}
