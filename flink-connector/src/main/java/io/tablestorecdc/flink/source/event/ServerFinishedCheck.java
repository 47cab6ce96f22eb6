package io.tablestorecdc.flink.source.event;

import io.tablestorecdc.checkpoint.merge.ServerAheadPolicy;
import java.io.Serializable;
import java.util.Objects;
import java.util.Set;
import org.apache.flink.annotation.Internal;

/**
 * Restored channels that the enumerator's state holds assigned and unfinished but that the tunnel
 * server has finished ({@code TERMINATED}), for the readers to judge. The enumerator cannot: its
 * state is taken before the readers' in every checkpoint, so a reader may have read such a channel
 * to its end and reported it after the enumerator's snapshot and before its own. The finish is then
 * in the reader's state, and the server has it from that checkpoint's commit: nothing is lost. A
 * reader that holds one of these channels unfinished was restored from state older than the
 * server's, and applies {@code on.server.ahead}: {@code fail} fails the job before it reads
 * anything, naming the channels; {@code skip} ends them unread.
 *
 * @param channelIds the channels
 * @param policy the job's {@code on.server.ahead}
 * @param tunnelId the tunnel's id
 * @param tunnel the tunnel as the user configured it, for messages
 * @param restoredFrom the checkpoint or savepoint restored, for messages
 */
@Internal
public record ServerFinishedCheck(
        Set<String> channelIds,
        ServerAheadPolicy policy,
        String tunnelId,
        String tunnel,
        String restoredFrom)
        implements Serializable {

    private static final long serialVersionUID = 1L;

    public ServerFinishedCheck {
        channelIds = Set.copyOf(channelIds);
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(tunnelId, "tunnelId");
        Objects.requireNonNull(tunnel, "tunnel");
        Objects.requireNonNull(restoredFrom, "restoredFrom");
    }

    /** A check that holds no channel. */
    public static ServerFinishedCheck none() {
        return new ServerFinishedCheck(Set.of(), ServerAheadPolicy.FAIL, "", "", "");
    }
}
