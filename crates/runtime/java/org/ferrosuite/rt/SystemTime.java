package org.ferrosuite.rt;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.MonthDay;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.Year;
import java.time.YearMonth;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Calendar;
import java.util.Locale;
import java.util.TimeZone;

/**
 * The clock that code under test reads. Calls of the JDK's clock APIs in the classes the
 * execution host loads are redirected here (see the Rust module
 * {@code ferrosuite_bytecode::instrument::clock}); each method has the descriptor of the API it
 * stands for and returns what that API returns at the time of this clock.
 *
 * <p>Two modes. With {@link #virtual} set (the controlled environment), the clock is virtual:
 * each test starts at {@link #START_MILLIS} plus {@link #shiftMillis}, and every read of the
 * time moves it on by {@link #stepMillis}, so a test reads the same times however fast it runs
 * and an elapsed time is never zero. Otherwise it is the system clock moved by {@link #shiftMillis};
 * with a shift of 0 every method returns exactly what the API would.
 */
public final class SystemTime {
    /**
     * Milliseconds added to the system clock; set by the worker before any class under test
     * runs and never changed afterwards.
     */
    public static long shiftMillis;

    /** Whether the clock is virtual; set by the worker before any class under test runs. */
    public static boolean virtual;

    /** Where the virtual clock starts each test: 2020-09-13T12:26:40Z. */
    public static final long START_MILLIS = 1_600_000_000_000L;

    /** {@code nanoTime()} at the start of each test on the virtual clock. */
    public static final long START_NANOS = 1_000_000_000_000L;

    /**
     * Milliseconds the virtual clock moves on per read: 1 in the search, more in the stability
     * reruns, so that values that depend on how fast time passes differ.
     */
    public static long stepMillis = 1;

    /** Milliseconds the virtual clock has moved on in this test. */
    private static long ticks;

    /** Reads of the virtual clock in this test (the worker asks whether there were any). */
    public static int reads;

    private SystemTime() {
    }

    /** Starts a test: the virtual clock goes back to its start. */
    public static synchronized void begin() {
        ticks = 0;
        reads = 0;
    }

    /** Sets the virtual clock so that its next read gives {@code millis} (no earlier than the start). */
    static synchronized void set(long millis) {
        ticks = Math.max(0, millis - START_MILLIS - shiftMillis);
    }

    /**
     * The time now, for a stamp the runtime itself keeps (a virtual file's modification time):
     * not a read of the code under test, so the clock does not move.
     */
    static synchronized long stamp() {
        return virtual ? START_MILLIS + shiftMillis + ticks : System.currentTimeMillis() + shiftMillis;
    }

    /** The virtual milliseconds elapsed so far; the next read is a step later. */
    private static synchronized long tick() {
        reads++;
        long t = ticks;
        ticks += stepMillis;
        return t;
    }

    /** {@code System.currentTimeMillis()}. */
    public static long currentTimeMillis() {
        if (virtual) {
            return START_MILLIS + shiftMillis + tick();
        }
        return System.currentTimeMillis() + shiftMillis;
    }

    /**
     * {@code Thread.sleep(long)}: on the virtual clock the time moves on by {@code millis} and
     * the thread only yields, so a test that waits does not run into its time limit.
     */
    public static void sleep(long millis) throws InterruptedException {
        if (!virtual) {
            Thread.sleep(millis);
            return;
        }
        if (millis < 0) {
            throw new IllegalArgumentException("timeout value is negative");
        }
        if (Thread.interrupted()) {
            throw new InterruptedException("sleep interrupted");
        }
        synchronized (SystemTime.class) {
            ticks += millis;
            reads++;
        }
        Thread.yield();
    }

    /** {@code Thread.sleep(long, int)}. */
    public static void sleep(long millis, int nanos) throws InterruptedException {
        if (!virtual) {
            Thread.sleep(millis, nanos);
            return;
        }
        if (nanos < 0 || nanos > 999_999) {
            throw new IllegalArgumentException("nanosecond timeout value out of range");
        }
        sleep(millis + (nanos > 0 ? 1 : 0));
    }

    /** {@code new Date()} at this clock's time (for {@link Patcher}). */
    public static java.util.Date newDate() {
        return new java.util.Date(currentTimeMillis());
    }

    /** {@code System.nanoTime()}. */
    public static long nanoTime() {
        if (virtual) {
            return START_NANOS + (shiftMillis + tick()) * 1_000_000L;
        }
        return System.nanoTime() + shiftMillis * 1_000_000L;
    }

    private static Clock shifted(Clock clock) {
        if (virtual) {
            return new VirtualClock(clock.getZone());
        }
        long s = shiftMillis;
        return s == 0 ? clock : Clock.offset(clock, Duration.ofMillis(s));
    }

    private static Calendar shifted(Calendar calendar) {
        if (virtual) {
            calendar.setTimeInMillis(currentTimeMillis());
            return calendar;
        }
        long s = shiftMillis;
        if (s != 0) {
            calendar.setTimeInMillis(calendar.getTimeInMillis() + s);
        }
        return calendar;
    }

    /** A {@link Clock} that reads {@link #currentTimeMillis()}. */
    private static final class VirtualClock extends Clock {
        private final ZoneId zone;

        VirtualClock(ZoneId zone) {
            this.zone = zone;
        }

        @Override
        public ZoneId getZone() {
            return zone;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return new VirtualClock(zone);
        }

        @Override
        public long millis() {
            return currentTimeMillis();
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(currentTimeMillis());
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof VirtualClock && ((VirtualClock) o).zone.equals(zone);
        }

        @Override
        public int hashCode() {
            return zone.hashCode() + 1;
        }

        @Override
        public String toString() {
            return "VirtualClock[" + zone + "]";
        }
    }

    /** {@code Clock.systemUTC()}. */
    public static Clock systemUTC() {
        return shifted(Clock.systemUTC());
    }

    /** {@code Clock.systemDefaultZone()}. */
    public static Clock systemDefaultZone() {
        return shifted(Clock.systemDefaultZone());
    }

    /** {@code Clock.system(ZoneId)}. */
    public static Clock system(ZoneId zone) {
        return shifted(Clock.system(zone));
    }

    /** {@code Instant.now()}. */
    public static Instant instantNow() {
        return Instant.now(systemUTC());
    }

    /** {@code LocalDate.now()}. */
    public static LocalDate localDateNow() {
        return LocalDate.now(systemDefaultZone());
    }

    /** {@code LocalDate.now(ZoneId)}. */
    public static LocalDate localDateNow(ZoneId zone) {
        return LocalDate.now(system(zone));
    }

    /** {@code LocalDateTime.now()}. */
    public static LocalDateTime localDateTimeNow() {
        return LocalDateTime.now(systemDefaultZone());
    }

    /** {@code LocalDateTime.now(ZoneId)}. */
    public static LocalDateTime localDateTimeNow(ZoneId zone) {
        return LocalDateTime.now(system(zone));
    }

    /** {@code LocalTime.now()}. */
    public static LocalTime localTimeNow() {
        return LocalTime.now(systemDefaultZone());
    }

    /** {@code LocalTime.now(ZoneId)}. */
    public static LocalTime localTimeNow(ZoneId zone) {
        return LocalTime.now(system(zone));
    }

    /** {@code ZonedDateTime.now()}. */
    public static ZonedDateTime zonedDateTimeNow() {
        return ZonedDateTime.now(systemDefaultZone());
    }

    /** {@code ZonedDateTime.now(ZoneId)}. */
    public static ZonedDateTime zonedDateTimeNow(ZoneId zone) {
        return ZonedDateTime.now(system(zone));
    }

    /** {@code OffsetDateTime.now()}. */
    public static OffsetDateTime offsetDateTimeNow() {
        return OffsetDateTime.now(systemDefaultZone());
    }

    /** {@code OffsetDateTime.now(ZoneId)}. */
    public static OffsetDateTime offsetDateTimeNow(ZoneId zone) {
        return OffsetDateTime.now(system(zone));
    }

    /** {@code OffsetTime.now()}. */
    public static OffsetTime offsetTimeNow() {
        return OffsetTime.now(systemDefaultZone());
    }

    /** {@code OffsetTime.now(ZoneId)}. */
    public static OffsetTime offsetTimeNow(ZoneId zone) {
        return OffsetTime.now(system(zone));
    }

    /** {@code Year.now()}. */
    public static Year yearNow() {
        return Year.now(systemDefaultZone());
    }

    /** {@code Year.now(ZoneId)}. */
    public static Year yearNow(ZoneId zone) {
        return Year.now(system(zone));
    }

    /** {@code YearMonth.now()}. */
    public static YearMonth yearMonthNow() {
        return YearMonth.now(systemDefaultZone());
    }

    /** {@code YearMonth.now(ZoneId)}. */
    public static YearMonth yearMonthNow(ZoneId zone) {
        return YearMonth.now(system(zone));
    }

    /** {@code MonthDay.now()}. */
    public static MonthDay monthDayNow() {
        return MonthDay.now(systemDefaultZone());
    }

    /** {@code MonthDay.now(ZoneId)}. */
    public static MonthDay monthDayNow(ZoneId zone) {
        return MonthDay.now(system(zone));
    }

    /** {@code Calendar.getInstance()}. */
    public static Calendar calendar() {
        return shifted(Calendar.getInstance());
    }

    /** {@code Calendar.getInstance(TimeZone)}. */
    public static Calendar calendar(TimeZone zone) {
        return shifted(Calendar.getInstance(zone));
    }

    /** {@code Calendar.getInstance(Locale)}. */
    public static Calendar calendar(Locale locale) {
        return shifted(Calendar.getInstance(locale));
    }

    /** {@code Calendar.getInstance(TimeZone, Locale)}. */
    public static Calendar calendar(TimeZone zone, Locale locale) {
        return shifted(Calendar.getInstance(zone, locale));
    }
}
