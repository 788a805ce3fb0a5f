package io.ringtail.decision;

import io.ringtail.testkit.ThresholdDetectorContract;

/** The in-process {@link ThresholdDetector} against the backend-neutral contract. */
class EventLogThresholdDetectorContractTest extends ThresholdDetectorContract {
  @Override
  protected ThresholdDetector newDetector(ThresholdConfig config) {
    return ThresholdDetector.inProcess(config);
  }
}
