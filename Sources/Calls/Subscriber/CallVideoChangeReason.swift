import Observability

/// Why a subscriber's video was switched off or on (docs/spec/sessions.md §3): the same type as
/// the reason of its stats' `videoQualityChanged`, ``SubscriberVideoEventReason``, as the
/// reference SDK has one reason for both. The name is kept for code written against it.
public typealias CallVideoChangeReason = SubscriberVideoEventReason
