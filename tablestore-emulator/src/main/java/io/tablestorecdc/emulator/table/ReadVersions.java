package io.tablestorecdc.emulator.table;

import com.alicloud.openservices.tablestore.core.protocol.OtsInternalApi;
import com.alicloud.openservices.tablestore.model.Column;
import io.tablestorecdc.emulator.server.EmulatorError;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Which versions of each column a read returns: those with a timestamp in {@code [startMillis,
 * endMillis)}, newest first, at most {@code maxVersions} of them.
 *
 * @param maxVersions the most versions per column (the request's {@code max_versions}, or no bound
 *     when it names only a time range)
 * @param startMillis the oldest timestamp returned, inclusive
 * @param endMillis the timestamp the versions returned stay below
 */
public record ReadVersions(int maxVersions, long startMillis, long endMillis) {

    /** The newest version of each column, as a read with {@code max_versions = 1}. */
    public static final ReadVersions NEWEST = new ReadVersions(1, 0, Long.MAX_VALUE);

    /** Every version kept. */
    public static final ReadVersions ALL = new ReadVersions(Integer.MAX_VALUE, 0, Long.MAX_VALUE);

    public ReadVersions {
        if (maxVersions <= 0 || startMillis < 0 || endMillis <= startMillis) {
            throw new IllegalArgumentException(
                    "maxVersions must be positive and the time range [start, end) not empty, got "
                            + maxVersions
                            + " and ["
                            + startMillis
                            + ", "
                            + endMillis
                            + ")");
        }
    }

    /**
     * The versions a read asks for, from its {@code max_versions} and {@code time_range}. The
     * service requires one of them; the SDK sends the time range alone when it holds one timestamp
     * ({@code specific_time}).
     *
     * @param batch whether a BatchGetRow asks (the service words its refusal for it apart)
     */
    static ReadVersions of(
            boolean batch,
            boolean hasMaxVersions,
            int maxVersions,
            boolean hasTimeRange,
            OtsInternalApi.TimeRange range)
            throws EmulatorError {
        if (!hasMaxVersions && !hasTimeRange) {
            // The service's words, which users search for (its SDK test ParameterLegalityTest):
            // the fix is setMaxVersions(1) for the newest version of each column, or a time range.
            throw EmulatorError.parameterInvalid(
                    batch
                            ? "No version condition is specified while querying row."
                            : "No version condition is specified.");
        }
        if (hasMaxVersions && maxVersions <= 0) {
            throw EmulatorError.parameterInvalid(
                    "max_versions must be positive, got " + maxVersions);
        }
        int max = hasMaxVersions ? maxVersions : Integer.MAX_VALUE;
        if (!hasTimeRange) {
            return new ReadVersions(max, 0, Long.MAX_VALUE);
        }
        if (range.hasSpecificTime()) {
            if (hasMaxVersions) {
                throw EmulatorError.parameterInvalid(
                        "A read with a specific time returns one version: leave max_versions out");
            }
            long at = range.getSpecificTime();
            if (at < 0 || at == Long.MAX_VALUE) {
                throw EmulatorError.parameterInvalid(
                        "The specific time must be a timestamp in milliseconds, got " + at);
            }
            return new ReadVersions(1, at, at + 1);
        }
        if (!range.hasStartTime() || !range.hasEndTime()) {
            throw EmulatorError.parameterInvalid(
                    "A time range needs a specific time, or both a start and an end time");
        }
        long start = range.getStartTime();
        long end = range.getEndTime();
        if (start < 0 || end <= start) {
            throw EmulatorError.parameterInvalid(
                    "The time range must have 0 <= start < end, got [" + start + ", " + end + ")");
        }
        return new ReadVersions(max, start, end);
    }

    /** Whether {@link #pick} keeps every version of each of {@code columns}. */
    boolean picksAll(Collection<List<Column>> columns) {
        for (List<Column> versions : columns) {
            if (versions.size() > maxVersions) {
                return false;
            }
            for (Column version : versions) {
                long ts = version.getTimestamp();
                if (ts < startMillis || ts >= endMillis) {
                    return false;
                }
            }
        }
        return true;
    }

    /** The versions to return out of {@code newestFirst}: in the range, newest first, bounded. */
    List<Column> pick(List<Column> newestFirst) {
        List<Column> out = new ArrayList<>(Math.min(newestFirst.size(), maxVersions));
        for (Column version : newestFirst) {
            if (out.size() == maxVersions) {
                break;
            }
            long ts = version.getTimestamp();
            if (ts >= startMillis && ts < endMillis) {
                out.add(version);
            }
        }
        return out;
    }
}
