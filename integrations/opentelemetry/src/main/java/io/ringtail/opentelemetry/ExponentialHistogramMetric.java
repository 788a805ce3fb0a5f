package io.ringtail.opentelemetry;

import io.opentelemetry.sdk.common.InstrumentationScopeInfo;
import io.opentelemetry.sdk.metrics.data.ExponentialHistogramData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.data.MetricDataType;
import io.opentelemetry.sdk.resources.Resource;

/** An exponential histogram metric; the SDK has no public factory of {@link MetricData}. */
record ExponentialHistogramMetric(
    Resource resource,
    InstrumentationScopeInfo scope,
    String name,
    String description,
    String unit,
    ExponentialHistogramData data)
    implements MetricData {

  @Override
  public Resource getResource() {
    return resource;
  }

  @Override
  public InstrumentationScopeInfo getInstrumentationScopeInfo() {
    return scope;
  }

  @Override
  public String getName() {
    return name;
  }

  @Override
  public String getDescription() {
    return description;
  }

  @Override
  public String getUnit() {
    return unit;
  }

  @Override
  public MetricDataType getType() {
    return MetricDataType.EXPONENTIAL_HISTOGRAM;
  }

  @Override
  public ExponentialHistogramData getData() {
    return data;
  }
}
