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
 * The clock that code under test reads: the system clock moved by {@link #shiftMillis}. Calls of
 * the JDK's clock APIs in the classes the execution host loads are redirected here (see the Rust
 * module {@code ferrosuite_bytecode::instrument::clock}); each method has the descriptor of the
 * API it stands for and returns what that API returns at the shifted time. With a shift of 0
 * every method returns exactly what the API would.
 */
public final class SystemTime {
    /**
     * Milliseconds added to the system clock; set by the worker before any class under test
     * runs and never changed afterwards.
     */
    public static long shiftMillis;

    private SystemTime() {
    }

    /** {@code System.currentTimeMillis()}. */
    public static long currentTimeMillis() {
        return System.currentTimeMillis() + shiftMillis;
    }

    /** {@code System.nanoTime()}. */
    public static long nanoTime() {
        return System.nanoTime() + shiftMillis * 1_000_000L;
    }

    private static Clock shifted(Clock clock) {
        long s = shiftMillis;
        return s == 0 ? clock : Clock.offset(clock, Duration.ofMillis(s));
    }

    private static Calendar shifted(Calendar calendar) {
        long s = shiftMillis;
        if (s != 0) {
            calendar.setTimeInMillis(calendar.getTimeInMillis() + s);
        }
        return calendar;
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
