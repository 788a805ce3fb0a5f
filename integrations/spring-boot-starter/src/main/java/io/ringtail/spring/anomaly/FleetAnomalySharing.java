package io.ringtail.spring.anomaly;

import io.ringtail.WindowSnapshot;
import io.ringtail.keyed.KeyedWindows;
import io.ringtail.redis.RedisBackend;
import io.ringtail.redis.RedisKeyedHistogramWindows;
import io.ringtail.redis.StateBoard;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Each endpoint evaluated once for the fleet: the fleet's summaries read, the evaluator being the
 * owner of the endpoint's first key, the states posted to one {@link StateBoard} per observation
 * ({@code anomaly:<observation>}), kept an hour (at least ten evaluations) after the last post.
 * Thread-safe.
 */
final class FleetAnomalySharing implements AnomalySharing {
  private final ObjectProvider<RedisBackend> backend;
  private final Duration ttl;
  private final Map<String, StateBoard> boards = new ConcurrentHashMap<>();

  FleetAnomalySharing(ObjectProvider<RedisBackend> backend, Duration interval) {
    this.backend = Objects.requireNonNull(backend, "backend");
    Duration tenEvaluations = interval == null ? Duration.ZERO : interval.multipliedBy(10);
    this.ttl =
        tenEvaluations.compareTo(Duration.ofHours(1)) > 0 ? tenEvaluations : Duration.ofHours(1);
  }

  @Override
  public Map<String, ? extends WindowSnapshot> read(KeyedWindows keyed) {
    return keyed instanceof RedisKeyedHistogramWindows fleet
        ? fleet.summaries()
        : keyed.snapshots();
  }

  @Override
  public boolean evaluates(KeyedWindows keyed, String key) {
    return !(keyed instanceof RedisKeyedHistogramWindows fleet) || fleet.owns(key);
  }

  @Override
  public void post(String observation, Map<String, String> states) {
    board(observation).post(states);
  }

  @Override
  public Map<String, String> posted(String observation) {
    return board(observation).read();
  }

  private StateBoard board(String observation) {
    return boards.computeIfAbsent(
        observation, o -> backend.getObject().stateBoard("anomaly:" + o, ttl));
  }
}
