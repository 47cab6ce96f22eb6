package io.tablestorecdc.checkpoint.model;

import io.tablestorecdc.checkpoint.annotation.Internal;

/**
 * A channel's status as the tunnel server reports it.
 *
 * <p>{@code WAIT} channels exist but are held by the server (a child whose parents have not
 * finished, or a stream channel while base data is still being read); only {@code OPEN} channels
 * may be read (invariant 4).
 */
@Internal
public enum ServerChannelStatus {
    WAIT,
    OPEN,
    CLOSING,
    CLOSE,
    TERMINATED
}
