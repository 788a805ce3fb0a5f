/**
 * Ringtail's own plumbing, shared by its modules: <b>not part of the API</b>. Anything here may
 * change or disappear in any release; do not use it from application code.
 */
package io.ringtail.internal;
