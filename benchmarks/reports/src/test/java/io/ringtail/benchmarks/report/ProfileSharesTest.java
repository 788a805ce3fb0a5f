package io.ringtail.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Predicate;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProfileSharesTest {
  /** Busy work a picked thread does: its frame is under every sample of that thread. */
  static final class Picked {
    static long burn(long until) {
      return spin(until);
    }
  }

  /** Busy work a thread the predicate leaves out does. */
  static final class LeftOut {
    static long burn(long until) {
      return spin(until);
    }
  }

  static long spin(long until) {
    long x = 1;
    while (System.nanoTime() < until) {
      x = x * 6364136223846793005L + 1442695040888963407L;
    }
    return x;
  }

  @Test
  void sharesCountThePickedThreadsSamples_perGroupOfFrames(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("r.jfr");
    Configuration sampler =
        Configuration.create(new StringReader(ProfileShares.samplerSettings(1)));
    try (Recording r = new Recording(sampler)) {
      r.start();
      long until = System.nanoTime() + 2_000_000_000L;
      Thread picked = new Thread(() -> Picked.burn(until), "http-nio-1-exec-1");
      Thread leftOut = new Thread(() -> LeftOut.burn(until), "scheduler-1");
      picked.start();
      leftOut.start();
      picked.join();
      leftOut.join();
      r.stop();
      r.dump(file);
    }
    Map<String, Predicate<String>> groups = new LinkedHashMap<>();
    groups.put("picked", c -> c.equals(Picked.class.getName()));
    groups.put("left out", c -> c.equals(LeftOut.class.getName()));
    groups.put("nowhere", c -> c.equals("no.such.Frame"));
    ProfileShares.Shares shares =
        ProfileShares.of(file, StarterProfileReport.REQUEST_THREADS, groups);

    assertThat(Files.size(file)).isPositive();
    assertThat(shares.samples()).as("samples of the picked thread").isGreaterThanOrEqualTo(5);
    assertThat(shares.share("picked")).isGreaterThan(0.9);
    assertThat(shares.share("left out")).isZero();
    assertThat(shares.share("nowhere")).isZero();
  }

  @Test
  void noSamples_giveNoShare(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("empty.jfr");
    try (Recording r =
        new Recording(Configuration.create(new StringReader(ProfileShares.samplerSettings(5))))) {
      r.start();
      r.stop();
      r.dump(file);
    }
    ProfileShares.Shares shares = ProfileShares.of(file, name -> false, Map.of("any", c -> true));
    assertThat(shares.samples()).isZero();
    assertThat(shares.share("any")).isNaN();
  }
}
