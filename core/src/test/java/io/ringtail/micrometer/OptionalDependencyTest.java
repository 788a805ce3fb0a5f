package io.ringtail.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.benmanes.caffeine.cache.Caffeine;
import io.ringtail.RollingWindow;
import io.ringtail.alert.CoreWithoutMicrometer;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class OptionalDependencyTest {

  private static URL location(Class<?> type) {
    return type.getProtectionDomain().getCodeSource().getLocation();
  }

  @Test
  public void onlyTheMicrometerPackageImportsMicrometer() throws IOException {
    Path main = Path.of("src/main/java/io/ringtail");
    assertThat(main).isDirectory();
    try (Stream<Path> files = Files.walk(main)) {
      List<Path> offenders = files
          .filter(f -> f.toString().endsWith(".java"))
          .filter(f -> !f.startsWith(main.resolve("micrometer")))
          .filter(f -> {
            try {
              return Files.readString(f).contains("io.micrometer");
            } catch (IOException e) {
              throw new java.io.UncheckedIOException(e);
            }
          })
          .toList();
      assertThat(offenders).isEmpty();
    }
  }

  @Test
  public void coreAndAlertingRunWithoutMicrometerOnTheClasspath() throws Exception {
    URL[] urls = {location(RollingWindow.class), location(CoreWithoutMicrometer.class),
        location(Histogram.class), location(Caffeine.class)};
    try (URLClassLoader isolated = new URLClassLoader(urls, ClassLoader.getPlatformClassLoader())) {
      Runnable check = (Runnable) isolated.loadClass(CoreWithoutMicrometer.class.getName())
          .getConstructor().newInstance();
      check.run();
      assertThatThrownBy(() -> isolated.loadClass(WindowMetrics.class.getName()))
          .isInstanceOf(NoClassDefFoundError.class)
          .hasMessageContaining("io/micrometer");
    }
  }
}
