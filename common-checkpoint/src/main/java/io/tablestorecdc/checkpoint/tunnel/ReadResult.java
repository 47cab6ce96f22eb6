package io.tablestorecdc.checkpoint.tunnel;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import java.util.List;
import java.util.Objects;

/**
 * One {@code readRecords} response in our terms.
 *
 * @param page the changes, in channel order, converted when read
 * @param next where the following read starts (a token with skip 0), or finished when the channel
 *     has delivered its last record
 * @param mayMoreRecord whether the server may have more records right now; when the server does not
 *     say, the SDK's own rule is applied (more than 500 records or more than 900 KB means "maybe
 *     more"), so a caller can back off on idle stream channels
 */
@Internal
public record ReadResult(RecordPage page, ChannelPosition next, boolean mayMoreRecord) {

    public ReadResult {
        Objects.requireNonNull(page, "page");
        Objects.requireNonNull(next, "next");
    }

    /** A response of records already converted. */
    public ReadResult(List<ChangeRecord> records, ChannelPosition next, boolean mayMoreRecord) {
        this(RecordPage.of(records), next, mayMoreRecord);
    }

    /** The changes, each converted when it is read. */
    public List<ChangeRecord> records() {
        return page.asList();
    }

    public boolean isFinished() {
        return next.isFinished();
    }
}
