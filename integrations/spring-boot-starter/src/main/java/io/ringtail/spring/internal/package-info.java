/**
 * Internal plumbing the starter's parts share (the pooled start times of observations in flight):
 * public only so that they can; not part of the API.
 */
package io.ringtail.spring.internal;
