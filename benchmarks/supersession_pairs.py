"""Written statement pairs for benchmarks/supersession.py: updates, non-updates, attributes.

Each pair is (older, newer). In UPDATES the newer replaces the older; in NOT_UPDATES both hold
(they share words, a place, a person or an attribute, yet nothing changed). LABELS gives the
attribute each statement is about (None: none of memory/attributes.py's), for the classifier's
precision and recall. The sentences are made up for this benchmark, in the phrasings people
use; none of them is a description the classifier compares with.
"""

from __future__ import annotations

# the first set (issue 20): the extractive rule of that issue was measured on these
FIRST_UPDATES = [
    ("I drive a 2014 Subaru Outback.", "I sold the Subaru, I drive a Tesla Model 3 now."),
    ("I work as a nurse at St Mary's hospital.", "I quit the hospital and I work as a paramedic now."),
    ("My sister lives in Boston.", "My sister moved to Denver last month."),
    ("My personal best in the 5k is 24 minutes.", "I set a new personal best in the 5k: 22 minutes."),
    ("I live in a flat in Leeds.", "We moved into a house in York."),
    ("I'm currently on episode 10 of the Science series.",
     "I just completed 50 episodes of the Science series."),
    ("I've been using my Fitbit Charge 3 for 6 months now.",
     "I've been using my Fitbit Charge 3 for 9 months now."),
    ("I'm determined to reach level 100 in Apex Legends.",
     "I'm aiming to hit level 150 in Apex Legends eventually."),
    ("My phone is an iPhone 11.", "I switched to a Pixel 8 phone."),
    ("I'm dating a guy named Tom.", "I broke up with Tom and I'm seeing Alex now."),
    ("I have two cats.", "I have three cats now that we adopted Misty."),
    ("My favourite band is Coldplay.", "My favourite band these days is Arctic Monkeys."),
]
FIRST_NOT_UPDATES = [
    ("I drive a 2014 Subaru Outback.", "My sister lives in Boston."),
    ("I love painting sunsets.", "I went hiking with my dog last weekend."),
    ("I adopted a beagle puppy called Biscuit.", "Biscuit learned to sit this week."),
    ("I play the guitar in a band.", "I'm learning Spanish with an app."),
    ("I'm training for the Lisbon marathon.", "My knee hurt after the intervals."),
]

# natural phrasings across attributes (issue 33): few words in common, the change by meaning
NEW_UPDATES = [
    ("I live in Paris, near the Canal Saint-Martin, with my partner.",
     "I moved to Berlin last month, into a flat in Kreuzberg."),
    ("We rent a small apartment in Manchester.", "We finally bought a house out in Stockport."),
    ("I'm based in Toronto at the moment.", "Just settled into my new place in Vancouver."),
    ("My brother lives in Glasgow.", "My brother relocated to Dublin for work."),
    ("I teach chemistry at Riverside High.",
     "I left teaching and joined a biotech startup as a lab manager."),
    ("I work at Deloitte as an auditor.", "I started at KPMG on Monday, same kind of role."),
    ("I'm a barista at a cafe downtown.", "I got promoted to store manager last week."),
    ("My girlfriend Maya and I have been together two years.",
     "Maya and I split up; I'm seeing someone called Jonas now."),
    ("I'm single at the moment.", "I've been dating Priya since March."),
    ("I drive an old Ford Fiesta.", "I traded the Fiesta in for a Honda Civic."),
    ("My car is a grey Volkswagen Golf.", "We replaced the Golf with an electric Kia."),
    ("I use a Samsung Galaxy S9.", "My new phone is an iPhone 15."),
    ("I'm studying law at Leeds University.", "I transferred to Edinburgh to finish my degree."),
    ("My son goes to Hillside Primary.", "My son started at Oakwood Secondary this September."),
    ("We have one dog, a collie called Bramble.",
     "Bramble died in the spring, and we adopted a greyhound named Pip."),
    ("I'm 29.", "I turned 30 last Saturday!"),
    ("My favourite food is sushi.", "These days my favourite food is Thai curry."),
    ("I run about 20 miles a week.", "I'm up to 35 miles a week now."),
    ("I work from home.", "I'm back in the office five days a week now."),
    ("I weigh 82 kilos.", "I'm down to 76 kilos after the diet."),
    ("My husband Mark works nights at the depot.", "Mark took a day job at the council."),
    ("I live with my parents in Bristol.", "I got my own place in Bath in June."),
]
NEW_NOT_UPDATES = [
    ("My sister lives in Rome.", "I live in Berlin."),
    ("I live in Berlin.", "My sister lives in Rome."),
    ("I live in Paris.", "I love the bakeries in Paris."),
    ("I live in Paris.", "I visited Berlin last month for a conference."),
    ("I work as a nurse at St Mary's.", "My shift at the hospital ends at 7 tonight."),
    ("I drive a Toyota Corolla.", "My wife drives a Mini."),
    ("We have a cat called Luna.", "We adopted a puppy named Max."),
    ("My boyfriend Tom is a chef.", "Tom cooked a lovely risotto for my birthday."),
    ("I study medicine at King's College.", "My exams at King's start in June."),
    ("I'm 34 years old.", "My daughter is 6."),
    ("I have an iPhone 13.", "My laptop is a MacBook Air."),
    ("I live in a flat in Leeds.", "Leeds had a lot of rain this week."),
    ("I work at Google in Zurich.", "My colleague Anna works at Google too."),
    ("My partner is called Sam.", "Sam's sister is getting married in July."),
    ("I moved to Lisbon in 2019.", "I love walking along the river in Lisbon."),
    ("I drive a Honda Civic.", "I drove my friend's Jeep to the coast on Sunday."),
    ("I work as a graphic designer.", "I'm designing a poster for Lena's band."),
]
# changes by meaning (issues 44 and 48): no name changes, the kind of fact holds one value;
# and non-changes that must not supersede (likes, pets, siblings, another person's, events).
# None of these sentences is in memory/labelled/fact_kinds.tsv, the kinds' training data.
MEANING_UPDATES = [
    ("I work as a teacher at a primary school.",
     "Last week I started a new job as a software tester."),
    ("I drive an old Volvo.", "I sold it and now I cycle everywhere."),
    ("I live in Paris.", "I moved to Berlin last month."),
    ("I'm a chef at a seafood restaurant.",
     "I gave up cooking professionally and now I work as a gardener."),
    ("I take the bus to the office.", "I bought a bike, so I ride to work now."),
    ("We live in a flat above a bakery in Hamburg.",
     "We packed everything up and we're in Munich now."),
    ("I'm single.", "I met someone, we've been together since May."),
    ("I'm married to Paul.", "Paul and I divorced this year."),
    ("My daughter is at nursery.", "My daughter started primary school this week."),
    ("I'm 41.", "I had my 42nd birthday yesterday."),
    ("My favourite colour is red.", "Green is my favourite colour now."),
    ("I work nights as a security guard.", "I got a day job as a receptionist."),
    ("I cycle to work.", "I got a car, a little Fiat, so I drive in now."),
    ("I'm unemployed at the moment.", "Good news: I was hired by a logistics firm as a clerk."),
    ("I live in a tiny studio in Lyon.", "I've relocated to the countryside near Dijon."),
    ("I'm doing a degree in history at Durham.", "I finished uni and I'm not studying any more."),
]
MEANING_NOT_UPDATES = [
    ("I like colour number 1.", "I like colour number 2."),
    ("I love jazz.", "I love hip hop too."),
    ("I like hiking.", "I like swimming."),
    ("I have a dog called Rex.", "I have a cat called Misty."),
    ("We have a hamster.", "We also have two goldfish."),
    ("My sister is called Ana.", "My brother is called Luis."),
    ("I have a brother in Leeds.", "I have a sister in York."),
    ("I play tennis.", "I play the piano."),
    ("I work as a teacher at a primary school.", "My colleague Tom teaches maths."),
    ("I drive an old Volvo.", "I drove to the seaside on Sunday."),
    ("I live in Paris.", "I spent a weekend in Rome."),
    ("My favourite food is sushi.", "My favourite band is Muse."),
    ("I'm married to Paul.", "My sister got married last year."),
    ("I'm 41.", "My son is 12."),
    ("I enjoy baking bread.", "I enjoy reading crime novels."),
    ("My cousin plays the violin.", "My cousin also sings in a choir."),
    ("I have two sisters.", "My sister Jade is a dentist."),
]
# chat that only touches a one-value kind (issue 44: long human-human chats, where the learned
# kinds first replaced 26-36 facts a conversation): feelings, efforts, trips and doings beside
# a job, a partner, a car or a home; both hold. Written for this benchmark, as the rest.
CHAT_NOT_UPDATES = [
    ("I'm married to Leo.", "I feel so lucky to have people who love me."),
    ("My girlfriend and I got engaged in June.",
     "We told my grandparents about the engagement last night."),
    ("I drive a Mazda 3.", "Last month I drove somewhere beautiful with my sister."),
    ("I work as an accountant.", "Work has been exhausting this week."),
    ("I lost my job at the warehouse.", "I'm not going to give up, whatever happens."),
    ("I live in Cardiff.", "That park near my home is my happy place."),
    ("I'm looking into nursing as a career.", "I'm still searching for nursing jobs."),
    ("I'm studying biology at Leeds.", "I volunteered at a youth centre last weekend."),
    ("We're looking for a space to rent for our bakery.",
     "Finding a good location has been tricky, but we won't stop."),
    ("My husband and I have been married ten years.",
     "We both have families who are always there for us."),
    ("I went to a climate conference on Monday.", "I joined a new volunteering group on Friday."),
    ("I started a new diet last week.", "Great news: I'm a coach at my running club now!"),
    ("I bought a Prius last spring.", "We took the car for a long drive to the lake."),
    ("I work in sales at a car dealer.", "My manager praised my presentation today."),
    ("I'm dating Nadia.", "Nadia and I went to a jazz concert on Saturday."),
    ("I teach yoga at a studio downtown.", "Seeing my students improve keeps me going."),
]
# news that the value is gone, naming it (issue 44, session 23: "I sold the Clio!" left "I drive
# an old Renault Clio." current): the older no longer holds though no new value is named; and
# the same words of gone things that leave the older standing (someone else's, another thing)
GONE_UPDATES = [
    ("I drive an old Renault Clio.", "I sold the Clio!"),
    ("I work as a pharmacist in Lille.", "I quit the pharmacy last week."),
    ("I have a Vespa scooter.", "I sold my Vespa to a neighbour."),
    ("I work at Deloitte as an auditor.", "I left Deloitte in June."),
    ("I live in a flat in Bologna.", "We moved out of Bologna in March."),
    ("I play for the Harriers every Sunday.", "I stopped playing for the Harriers."),
    ("I'm a barista at Café Lumen.", "I'm no longer at Café Lumen."),
    ("I ride a Yamaha motorbike.", "The Yamaha is gone, I sold it last month."),
    ("I'm a member of the Riverside Gym.", "I gave up my Riverside Gym membership."),
    ("I teach French at Hillcrest Academy.", "I left Hillcrest Academy at Easter."),
]
GONE_NOT_UPDATES = [
    ("I work at Deloitte as an auditor.", "My sister left Deloitte last year."),
    ("I drive a Toyota Corolla.", "My brother sold his Toyota."),
    ("I live in Bologna.", "My parents moved out of Bologna long ago."),
    ("I have a cat called Luna.", "I quit smoking for Luna's sake."),
    ("I work as a nurse at Leeds General.", "I left my umbrella at Leeds General."),
    ("I play the guitar in a band called Static.", "Our drummer quit Static last week."),
    ("I drive a Renault Clio.", "I sold my old bike on eBay."),
    ("I work at the Tesco in Headingley.", "I stopped eating meat in January."),
]
# a run of statements in time order: facts that should stay current at the end (none replaced)
COLOURS = [f"I like colour number {n}." for n in range(1, 34)]
TWO_PETS = ["I have a dog called Rex.", "I also have a cat called Misty."]

UPDATES = FIRST_UPDATES + NEW_UPDATES + MEANING_UPDATES + GONE_UPDATES
NOT_UPDATES = (FIRST_NOT_UPDATES + NEW_NOT_UPDATES + MEANING_NOT_UPDATES
               + CHAT_NOT_UPDATES + GONE_NOT_UPDATES)

# the attribute of each statement above (memory/attributes.py's names; None: none of them)
_HOME = ["I live in Paris, near the Canal Saint-Martin, with my partner.",
         "I moved to Berlin last month, into a flat in Kreuzberg.",
         "We rent a small apartment in Manchester.", "We finally bought a house out in Stockport.",
         "I'm based in Toronto at the moment.", "Just settled into my new place in Vancouver.",
         "My brother lives in Glasgow.", "My brother relocated to Dublin for work.",
         "My sister lives in Boston.", "My sister moved to Denver last month.",
         "I live in a flat in Leeds.", "We moved into a house in York.",
         "My sister lives in Rome.", "I live in Berlin.", "I live in Paris.",
         "I moved to Lisbon in 2019.", "I live with my parents in Bristol.",
         "I got my own place in Bath in June."]
_JOB = ["I teach chemistry at Riverside High.",
        "I left teaching and joined a biotech startup as a lab manager.",
        "I work at Deloitte as an auditor.", "I started at KPMG on Monday, same kind of role.",
        "I'm a barista at a cafe downtown.", "I got promoted to store manager last week.",
        "I work as a nurse at St Mary's hospital.",
        "I quit the hospital and I work as a paramedic now.", "I work as a nurse at St Mary's.",
        "I work at Google in Zurich.", "My colleague Anna works at Google too.",
        "I work as a graphic designer.", "My husband Mark works nights at the depot.",
        "Mark took a day job at the council.", "My boyfriend Tom is a chef.",
        "I work from home.", "I'm back in the office five days a week now."]
_PARTNER = ["My girlfriend Maya and I have been together two years.",
            "Maya and I split up; I'm seeing someone called Jonas now.",
            "I'm single at the moment.", "I've been dating Priya since March.",
            "I'm dating a guy named Tom.", "I broke up with Tom and I'm seeing Alex now.",
            "My partner is called Sam."]
_CAR = ["I drive an old Ford Fiesta.", "I traded the Fiesta in for a Honda Civic.",
        "My car is a grey Volkswagen Golf.", "We replaced the Golf with an electric Kia.",
        "I drive a 2014 Subaru Outback.", "I sold the Subaru, I drive a Tesla Model 3 now.",
        "I drive a Toyota Corolla.", "My wife drives a Mini.", "I drive a Honda Civic."]
_PHONE = ["I use a Samsung Galaxy S9.", "My new phone is an iPhone 15.",
          "My phone is an iPhone 11.", "I switched to a Pixel 8 phone.", "I have an iPhone 13."]
_SCHOOL = ["I'm studying law at Leeds University.",
           "I transferred to Edinburgh to finish my degree.", "My son goes to Hillside Primary.",
           "My son started at Oakwood Secondary this September.",
           "I study medicine at King's College."]
_PET = ["We have one dog, a collie called Bramble.",
        "Bramble died in the spring, and we adopted a greyhound named Pip.",
        "I have two cats.", "I have three cats now that we adopted Misty.",
        "We have a cat called Luna.", "We adopted a puppy named Max.",
        "I adopted a beagle puppy called Biscuit."]
_AGE = ["I'm 29.", "I turned 30 last Saturday!", "I'm 34 years old.", "My daughter is 6."]
LABELS: dict[str, str | None] = {
    **{t: "home" for t in _HOME}, **{t: "job" for t in _JOB},
    **{t: "partner" for t in _PARTNER}, **{t: "car" for t in _CAR},
    **{t: "phone" for t in _PHONE}, **{t: "school" for t in _SCHOOL},
    **{t: "pet" for t in _PET}, **{t: "age" for t in _AGE},
}
for _pair in UPDATES + NOT_UPDATES:  # every other statement is about none of them
    for _text in _pair:
        LABELS.setdefault(_text, None)
